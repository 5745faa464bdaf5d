-- AlterTable
ALTER TABLE "tasks" ADD COLUMN     "answered_execution_id" UUID;
